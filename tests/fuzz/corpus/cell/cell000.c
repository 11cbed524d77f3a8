int count = 41;
double ratio = 0.25;
char letter = 'z';
const char *name = "gpuc";
