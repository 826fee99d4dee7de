// Test-only MPI peer for ranks_mpi_cli_test.cc: stands in for MPI process 1 of `gpuroof ranks`
// (mpirun's MPMD form, `mpirun -n 1 gpuroof ranks DIR : -n 1 this`). It takes the leader's
// broadcast of the shares as gpuroof's later processes do (the length as one uint64, then the
// bytes), then sends the leader a summaries message that is no summary at all, so that the
// leader fails after the gather and takes the job down with MPI_Abort. It then waits for a
// message the leader never sends, as a process blocked sending a large summary would: only the
// abort ends it (a leader that went on to MPI_Finalize instead would leave the job hanging).
#include <cstdint>
#include <string>

#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  uint64_t size = 0;
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::string shares(size, '\0');
  if (size > 0) MPI_Bcast(shares.data(), static_cast<int>(size), MPI_BYTE, 0, MPI_COMM_WORLD);
  std::string garbage = "not a summary";
  constexpr int kSummariesTag = 16;  // src/cli/ranks_mpi.cc
  MPI_Send(garbage.data(), static_cast<int>(garbage.size()), MPI_BYTE, 0, kSummariesTag,
           MPI_COMM_WORLD);
  char never = 0;
  MPI_Recv(&never, 1, MPI_BYTE, 0, kSummariesTag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
