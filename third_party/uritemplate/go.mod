module github.com/yosida95/uritemplate/v3

go 1.14
