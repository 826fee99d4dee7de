// `mpirun -n P gpuroof ranks DIR`: the traces spread over P processes (built with GPUROOF_MPI
// only). MPI process 0 finds the traces, gives each process a share balanced by file size
// (rank_set_bytes.h ShareByFileSize), reads its own share, gathers the summaries of the others
// and writes the output exactly as a single process would; the others read their share on their
// own thread pool (--jobs), send the summaries to process 0 and write nothing.
#pragma once

#include <memory>

#include "rank_set_loading.h"

namespace gpuroof {

// The spread when this process was started by mpirun/mpiexec among more than one process (told
// by the launcher's environment, before MPI is initialised); null otherwise, so that a plain run
// never touches MPI. MPI is initialised when `ranks` runs, and finalised by the destructor.
std::unique_ptr<RankSetSpread> MpiRankSetSpreadFromEnvironment();

// True in a process the launcher started as any but the first (its environment says so). Every
// process parses the same command line and reads the same files first, so a usage or input error
// is said by the first process only, not once per process.
bool IsLaterLaunchedProcess();

}  // namespace gpuroof
