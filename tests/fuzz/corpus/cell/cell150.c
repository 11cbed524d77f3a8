int level = 0;
#if defined(__x86_64__) || defined(__aarch64__)
level = 64;
#else
level = 32;
#endif
level
