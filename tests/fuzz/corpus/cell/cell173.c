int count = 42;
double ratio = 0.5;
const char *name = "gpuc";
int arr[3] = {1, 2, 3};
int helper(void) { return 0; }
