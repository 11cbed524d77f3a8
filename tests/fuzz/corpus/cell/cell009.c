print("called through a pointer");
