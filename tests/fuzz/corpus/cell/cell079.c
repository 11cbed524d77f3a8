(char *)0
