// main.cpp: runs every registered test; prints "N passed, N failed".
#include <cstdio>
#include <cstring>

#include "test.h"

namespace fdblite_test {
std::vector<TestCase>& Registry() {
  static auto* r = new std::vector<TestCase>();  // never destroyed: tests may run at exit
  return *r;
}
int failures = 0;
void Fail(const char* file, int line, const std::string& msg) {
  ++failures;
  std::fprintf(stderr, "  %s:%d: %s\n", file, line, msg.c_str());
}
}  // namespace fdblite_test

int main(int argc, char** argv) {
  int passed = 0, failed = 0;
  for (auto& tc : fdblite_test::Registry()) {
    if (argc > 1 && std::strstr(tc.name, argv[1]) == nullptr) continue;
    fdblite_test::failures = 0;
    tc.fn();
    if (fdblite_test::failures == 0) {
      ++passed;
    } else {
      ++failed;
      std::fprintf(stderr, "FAIL %s\n", tc.name);
    }
  }
  std::printf("fdblite: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
