#undef TEMP
#ifdef TEMP
int temp_defined = 1;
#else
int temp_defined = 0;
#endif
