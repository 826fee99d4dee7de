// A process id that no running process has, for tests of code that tells gone processes from
// live ones (scratch files named after the pid of the process that wrote them).
#pragma once

#include <sys/types.h>

namespace gpuroof::testsupport {

// The pid of a child that exited and was reaped, so certainly gone (until the kernel reuses it);
// -1 when the fork or the wait failed.
pid_t GonePid();

}  // namespace gpuroof::testsupport
