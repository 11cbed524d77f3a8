"he said \"hi\"\n\ttab \\ done"
