(void *)0
