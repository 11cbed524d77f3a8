int base(void) { return 1; }
int calls_base(void) { return base() * 10; }
