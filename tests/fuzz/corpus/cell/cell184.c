%cflags
