#define TEMP 1
#undef TEMP
