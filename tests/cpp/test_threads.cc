#include <gtest/gtest.h>
#include <mxffi/mxffi.h>

#include <atomic>
#include <thread>
#include <vector>

#include "test_util.h"

namespace {

constexpr int kThreads = 8;

std::atomic<int> g_counted_deleted{0};
class CountedObj : public mxffi::Object {
 public:
  ~CountedObj() { ++g_counted_deleted; }
  static constexpr const char* _type_key = "test.Counted";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_OBJECT_INFO(CountedObj, mxffi::Object);
};

TEST(Threads, ConcurrentCopiesFreeExactlyOnce) {
  g_counted_deleted = 0;
  for (int round = 0; round < 20; ++round) {
    mxffi::ObjectPtr<CountedObj> shared = mxffi::make_object<CountedObj>();
    std::vector<std::thread> workers;
    std::atomic<bool> go{false};
    for (int t = 0; t < kThreads; ++t) {
      workers.emplace_back([&shared, &go] {
        while (!go.load()) {
        }
        for (int i = 0; i < 2000; ++i) {
          mxffi::ObjectPtr<CountedObj> copy = shared;
          mxffi::Any cell = mxffi::ObjectRef(mxffi::ObjectPtr<mxffi::Object>(copy));
          mxffi::Any again = cell;
        }
      });
    }
    go = true;
    for (auto& w : workers) w.join();
    EXPECT_EQ(shared.use_count(), 1);
    EXPECT_EQ(g_counted_deleted, round);
  }
  EXPECT_EQ(g_counted_deleted, 20);
}

TEST(Threads, ConcurrentRegistrationAndLookup) {
  std::vector<std::thread> workers;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([t, &failures] {
      for (int i = 0; i < 200; ++i) {
        std::string name = "threads.f" + std::to_string(t) + "_" + std::to_string(i);
        int64_t expected = t * 1000 + i;
        mxffi::Function::SetGlobal(name,
                                   mxffi::Function::FromTyped([expected]() { return expected; }));
        // Look up our own and a neighbour's names while others register.
        if (mxffi::Function::GetGlobalRequired(name)().cast<int64_t>() != expected) ++failures;
        mxffi::Function other = mxffi::Function::GetGlobal(
            "threads.f" + std::to_string((t + 1) % kThreads) + "_" + std::to_string(i / 2));
        if (other.defined() && other().cast<int64_t>() % 1000 != i / 2) ++failures;
        if (mxffi::Function::GetGlobalRequired("testing.add")(i, 1).cast<int64_t>() != i + 1) {
          ++failures;
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(failures, 0);
  MXFFIObjectHandle h = nullptr;
  ASSERT_EQ(MXFFIFuncListGlobalNames(&h), 0);
  mxffi::Array<mxffi::String> names(
      mxffi::ObjectPtr<mxffi::Object>::MoveFromRaw(mxffi::details::ObjectUnsafe::FromHeader(h)));
  int64_t ours = 0;
  for (const auto& n : names.ToVector()) ours += n.view().rfind("threads.f", 0) == 0;
  EXPECT_EQ(ours, kThreads * 200);
}

TEST(Threads, ConcurrentTypeRegistrationGivesOneIndexPerKey) {
  std::vector<std::thread> workers;
  std::vector<int32_t> seen(kThreads * 50);
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([t, &seen] {
      for (int i = 0; i < 50; ++i) {
        std::string key = "threads.Type" + std::to_string(i);
        seen[t * 50 + i] = mxffi::details::RegisterType(key.c_str(), -1, kMXFFIObject, 1, false);
      }
    });
  }
  for (auto& w : workers) w.join();
  for (int t = 1; t < kThreads; ++t) {
    for (int i = 0; i < 50; ++i) EXPECT_EQ(seen[t * 50 + i], seen[i]);
  }
}

TEST(Threads, ErrorsAreThreadLocal) {
  std::vector<std::thread> workers;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([t, &failures] {
      std::string msg = "from thread " + std::to_string(t);
      for (int i = 0; i < 200; ++i) {
        auto r = mxffi_test::CallRaw("testing.raise_error", {mxffi_test::StrCell("ValueError"),
                                                             mxffi_test::StrCell(msg.c_str())});
        if (r.rc != -1 || r.message != msg) ++failures;
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(failures, 0);
}

}  // namespace
