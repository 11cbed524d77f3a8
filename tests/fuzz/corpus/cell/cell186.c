%cflags --reset
int FROM_CFLAGS = 1;
FROM_CFLAGS
