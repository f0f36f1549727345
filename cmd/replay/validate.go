package main

func runValidate(e *env, args []string) error { return usageError("validate: not yet") }
func runDemo(e *env, args []string) error     { return usageError("demo: not yet") }
