static int hidden = 3;
static int twice(int v) { return 2 * v; }
static const char *label = "static label";
