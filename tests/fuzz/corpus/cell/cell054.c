int counter = 10;
int next(void) { return ++counter; }
