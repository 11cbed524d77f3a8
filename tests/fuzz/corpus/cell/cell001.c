int squares[4] = {0, 1, 4, 9};
int *second = &squares[1];
struct point { int x, y; } origin = {3, 4};
int (*print)(const char *) = puts;
