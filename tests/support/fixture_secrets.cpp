// tests/support/fixture_secrets.cpp — the fixtures' course secrets are short words
// ("attn-fixture-secret"), which attn refuses as guessable (grade/secret.hpp). The test
// binary accepts them for itself and every attn it runs, however it is started (ctest,
// `build/tests/attn_tests "[grade]"`, tools/bless-goldens). The refusal itself is tested
// in tests/python/test_grade_secret.py, which removes this variable.
#include <cstdlib>

namespace {

const int accepted = [] { return ::setenv("ATTN_ALLOW_GUESSABLE_SECRET", "1", /*overwrite=*/0); }();

}  // namespace
