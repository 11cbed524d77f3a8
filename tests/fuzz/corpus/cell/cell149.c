#ifdef TEMP
printf("TEMP is still defined\n");
#else
printf("TEMP is gone\n");
#endif
