#include <assert.h>
assert(keep == 8);
