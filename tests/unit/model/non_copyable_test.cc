// The classes that own a resource tied to one place are never copied, and moved only where they
// say how (a database connection, a statement, a mapped chunk hand theirs over).
#include "gpuroof/model/non_copyable.h"

#include <type_traits>

#include <gtest/gtest.h>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/output_file.h"
#include "gpuroof/process/process_runner.h"
#include "gpuroof/readers/kineto_trace_builder.h"
#include "gpuroof/readers/sqlite_database.h"

namespace gpuroof {
namespace {

template <typename T>
constexpr bool kPinned = !std::is_copy_constructible_v<T> && !std::is_copy_assignable_v<T> &&
                         !std::is_move_constructible_v<T> && !std::is_move_assignable_v<T>;

template <typename T>
constexpr bool kMoveOnlyByConstruction =
    !std::is_copy_constructible_v<T> && !std::is_copy_assignable_v<T> &&
    std::is_move_constructible_v<T> && !std::is_move_assignable_v<T>;

struct Owner : NonCopyable {
  int handle = 0;
};

TEST(NonCopyable, NeitherCopiedNorMovedUnlessTheClassSaysHow) {
  static_assert(kPinned<Owner>);
  static_assert(kPinned<FolderLock>);
  static_assert(kPinned<JsonDoublesMarked>);
  static_assert(kPinned<TerminationScope>);
  static_assert(kMoveOnlyByConstruction<SqliteDatabase>);
  static_assert(kMoveOnlyByConstruction<SqliteStatement>);
  static_assert(kMoveOnlyByConstruction<MappedChunk<ApiCall>>);
  SUCCEED();
}

}  // namespace
}  // namespace gpuroof
