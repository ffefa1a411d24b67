module pi

go 1.26
