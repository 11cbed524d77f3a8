int x = 42;
int f(void) { return 1; }
#define M 3
struct s { int a; };
