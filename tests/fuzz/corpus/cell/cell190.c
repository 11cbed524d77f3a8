volatile double acc = 1.0;
void step(void) { for (volatile int i = 0; i < 1000; i++) acc = sqrt(acc + 1.0); }
