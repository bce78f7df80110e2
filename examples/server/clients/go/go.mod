module keyward/verify

go 1.19
