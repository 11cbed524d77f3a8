origin.x * origin.y
