print("hello from the sandbox workspace")
