int base(void) { return 2; }
