%lib z
