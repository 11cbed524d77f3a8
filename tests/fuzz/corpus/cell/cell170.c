#ifdef M
printf("M still defined\n");
#else
printf("M gone\n");
#endif
