// test.h: the smallest test framework that does the job.
//
//   TEST("fdb_transaction_get_range reverse") { ... EXPECT_EQ(a, b); ... }
//
// Tests register themselves; tests/main.cpp runs them all (or those whose
// name contains argv[1]) and prints "N passed, N failed".
#ifndef FDBLITE_TESTS_TEST_H_
#define FDBLITE_TESTS_TEST_H_

#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace fdblite_test {

struct TestCase {
  const char* name;
  std::function<void()> fn;
};
std::vector<TestCase>& Registry();
struct Registrar {
  Registrar(const char* name, std::function<void()> fn) {
    Registry().push_back({name, std::move(fn)});
  }
};
// Failures counts EXPECT failures in the running test.
extern int failures;
void Fail(const char* file, int line, const std::string& msg);

template <typename T>
std::string Show(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace fdblite_test

#define FDBLITE_CAT2(a, b) a##b
#define FDBLITE_CAT(a, b) FDBLITE_CAT2(a, b)
#define TEST(name)                                                     \
  static void FDBLITE_CAT(test_fn_, __LINE__)();                       \
  static ::fdblite_test::Registrar FDBLITE_CAT(test_reg_, __LINE__)(   \
      name, FDBLITE_CAT(test_fn_, __LINE__));                          \
  static void FDBLITE_CAT(test_fn_, __LINE__)()

#define EXPECT_TRUE(c)                                                  \
  do {                                                                  \
    if (!(c)) ::fdblite_test::Fail(__FILE__, __LINE__, "expected " #c); \
  } while (0)
#define EXPECT_EQ(a, b)                                                     \
  do {                                                                      \
    auto&& _a = (a);                                                        \
    auto&& _b = (b);                                                        \
    if (!(_a == _b))                                                        \
      ::fdblite_test::Fail(__FILE__, __LINE__,                              \
                           std::string(#a " == " #b ": got ") +             \
                               ::fdblite_test::Show(_a) + " vs " +          \
                               ::fdblite_test::Show(_b));                   \
  } while (0)
#define ASSERT_TRUE(c)                                                  \
  do {                                                                  \
    if (!(c)) {                                                         \
      ::fdblite_test::Fail(__FILE__, __LINE__, "expected " #c);         \
      return;                                                           \
    }                                                                   \
  } while (0)

#endif  // FDBLITE_TESTS_TEST_H_
