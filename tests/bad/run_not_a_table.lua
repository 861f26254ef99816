-- expect: 2 the spec must be a table of options, not a string
lb.run("randread")
