// Which host process launched each GPU op of a Kineto file that holds several processes (merged
// ranks, a multi-process capture). CUPTI counts correlation ids per process, so one id may name
// calls of several processes, and a GPU row carries its device, not its process: the rules below
// decide, and say how many ops each rule placed (docs/formats.md, "Kineto JSON traces").
#pragma once

#include <cstdint>
#include <vector>

#include "gpuroof/model/trace.h"
#include "gpuroof/readers/kineto_trace_builder.h"

namespace gpuroof {

// How the ops whose correlation id several processes' launch calls have were placed.
struct ProcessPlacement {
  int64_t by_stream = 0;  // the only process that launched other ops onto their stream
  int64_t by_fit = 0;     // the process that could have launched most such ops of their device
  int64_t by_time = 0;    // the call that started last but not after the op started
  // Ops nothing tells the process of: on a stream no process launched other ops onto, on a
  // device where no one process alone could have launched most such ops (merged ranks whose
  // calls all precede the ops). Left unjoined rather than given by time, which picks the wrong
  // rank whenever one host runs ahead of another.
  int64_t undecided = 0;
};

// Gives each GPU op of `trace` the process of its launching call, in this order of rules:
//  1. unique id: the one process with a launch call of the op's id;
//  2. stream: when one process alone launched the stream's other ops (by ids only it has);
//  3. device fit: on a stream no process launched other ops onto, the process whose calls could
//     have launched (started no later than) most such ops of the device, when one alone could
//     (a device whose processes tie may be decided once the other devices took theirs);
//  4. time: on a stream several processes launched onto, or when one call of the id not given
//     yet alone started no later than the op, op by op in start order, the process of the call
//     of that id that started last but not after the op did (the earliest call when none did);
//  5. else the op is left unjoined and counted (ProcessPlacement::undecided).
// While an id has no more ops than calls, each call is given to one op at most (a graph launch,
// which launches several, makes more ops than calls). Host order is not assumed to be GPU order:
// each op looks at its own start only. A stream launched onto by several processes is split, one
// stream per process (nsys keys streams by process too).
// `launch_calls`: the calls that can launch GPU work, sorted by correlation, then process.
// Call: ApiCall or ParsedLaunchEnd.
template <typename Call>
ProcessPlacement AssignLaunchingProcesses(Trace& trace,
                                          const std::vector<const Call*>& launch_calls);

}  // namespace gpuroof
