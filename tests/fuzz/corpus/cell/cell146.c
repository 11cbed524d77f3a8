get_answer() + 1
