// A small line-oriented text format describing an nsys SQLite export, so that test inputs and
// the bundled example are readable and reviewable instead of being opaque binary files.
//
// One directive per line; `#` starts a comment; values may be "double quoted" (escapes \" and
// \\). Directives:
//
//   schema 2020|2021|2022|2024|2025   optional, default 2024; before any other directive
//   allow-nulls                       optional; before any other directive
//   gpu ID "NAME"
//   domain ID "NAME" [pid=N]
//   kernel start=T end=T [dev=N] [ctx=N] [stream=N] [pid=N] [corr=N] [name=NAME]
//          [demangled="..."] [grid=X[,Y[,Z]]] [block=X[,Y[,Z]]]
//   memcpy start=T end=T kind=KIND bytes=N [src=MEM] [dst=MEM] [srcdev=N] [dstdev=N]
//          [count=N] (copyCount, schema 2025: copies a batched row stands for; default 1)
//          [dev ctx stream pid corr as for kernel]
//          KIND: HtoD DtoH DtoD PtoP HtoH HtoA AtoH AtoA AtoD DtoA UVM_HtoD UVM_DtoH UVM_DtoD
//                Unknown, or an integer (nsys copyKind numbering)
//          MEM: pageable pinned device array managed devicestatic managedstatic unknown, or an
//               integer (nsys ENUM_CUDA_MEM_KIND numbering)
//   memset start=T end=T bytes=N [value=N] [mem=MEM] [dev ctx stream pid corr]
//   nvtx start=T [end=T] (text="..." | registered="...") [domain=N]
//        [type=pushpop|startend|mark|N] [pid=N] [tid=N] [rangeid=N]
//   api start=T end=T corr=N [pid=N] [tid=N] [name=NAME]   a CUDA API call (launch) on a thread
//   empty-table kernel|memcpy|memset|nvtx
//   enum ENUM_CUDA_MEMCPY_OPER|ENUM_CUDA_MEM_KIND ID NAME "LABEL"
//   meta NAME "VALUE"
//   repeat COUNT [step=T] {
//     ...directives, repeats may nest three deep...
//   }
//
// Times T are integers in ns, or with a unit suffix ns/us/ms/s; decimals are fine when the
// result is a whole number of ns (16.35us). `null` as start/end writes NULL (needs allow-nulls).
// Every numeric value may be an integer expression (+ - * / % and parentheses) over the loop
// indices i (outermost repeat), j and k (nested repeats), e.g. `stream=13+i%4`. Inside a repeat,
// each start/end is also shifted by i*step (plus j*inner step, ...). Keyword values (kind, src,
// dst, mem, type) are case-insensitive.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuroof::testsupport {

// A problem in a description, including values that are only found invalid while rows are being
// generated (a negative stream id at i=3). The message is "SOURCE:LINE: message".
class DescriptionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses `text` (named `source_name` in messages) and writes the described file to `output`.
// Repeats are expanded while writing, so a description of ten million rows needs no more memory
// than its text. Throws DescriptionError for problems in the description and std::runtime_error
// for I/O or SQLite failures; in both cases nothing new is left at `output`.
void BuildFromDescription(std::string_view text, const std::string& source_name,
                          const std::filesystem::path& output);

}  // namespace gpuroof::testsupport
