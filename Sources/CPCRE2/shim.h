// PCRE2 with 8-bit code units. Its API is macros over the `pcre2_*_8` functions; Swift sees
// only the functions, so callers use those names directly.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
