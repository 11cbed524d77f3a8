int b = 2;
int c = a + yy;
