unsigned long crc = crc32(0L, (const unsigned char *)"abc", 3);
crc
