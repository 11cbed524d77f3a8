(short)-32768
