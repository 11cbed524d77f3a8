#define MAKE_GETTER(name, val) int get_##name(void) { return val; }
MAKE_GETTER(answer, 42)
get_answer()
