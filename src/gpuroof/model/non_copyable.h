// A base for classes that own something tied to their address or to one scope (a lock, a
// handle, a signal disposition, a scratch folder): never copied, and not moved either unless the
// class defines its own move constructor (which hands the resource over).
#pragma once

namespace gpuroof {

class NonCopyable {
 public:
  NonCopyable(const NonCopyable&) = delete;
  NonCopyable& operator=(const NonCopyable&) = delete;

 protected:
  NonCopyable() = default;
  ~NonCopyable() = default;
};

}  // namespace gpuroof
