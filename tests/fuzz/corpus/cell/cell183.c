%lib
