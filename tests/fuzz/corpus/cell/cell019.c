#include <ctype.h>
#include <limits.h>
#define GREETING "hello"
#define SQUARE(x) ((x) * (x))
#define TEMP 1
