%cflags -b
