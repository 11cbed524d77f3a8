ratio * 4
