keep + before
