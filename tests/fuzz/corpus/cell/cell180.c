%cflags -DFROM_CFLAGS=7
