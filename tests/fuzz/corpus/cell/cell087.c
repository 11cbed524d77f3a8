void nothing(void) {}
nothing()
