package layers

const limit = 10

type upper struct {
	name string
	l    lower
}

func (u *upper) Greeting() string { return "hello " + base(u.name) }
