char buf[16];
strcpy(buf, "copied");
(char *)buf
