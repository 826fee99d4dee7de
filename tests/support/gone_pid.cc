#include "support/gone_pid.h"

#include <sys/wait.h>
#include <unistd.h>

namespace gpuroof::testsupport {

pid_t GonePid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  if (child < 0) return -1;
  int status = 0;
  return waitpid(child, &status, 0) == child ? child : -1;
}

}  // namespace gpuroof::testsupport
