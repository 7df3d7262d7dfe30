package toon

import (
	"errors"
	"math"
	"testing"
)

func TestValue_Constructors(t *testing.T) {
	obj := Object(
		Member{"n", Int(-42)},
		Member{"f", Float(0.1)},
		Member{"nan", Float(math.NaN())},
		Member{"s", String("x")},
		Member{"b", Bool(true)},
		Member{"a", Array(Null(), Float(math.Inf(1)))},
		Member{"n", Int(7)}, // repeated: last value, first position
	)
	if got, want := jsonString(t, obj), `{"n":7,"f":0.1,"nan":null,"s":"x","b":true,"a":[null,null]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if v, ok := obj.Lookup("s"); !ok || v.Kind() != KindString || v.Text() != "x" {
		t.Errorf("Lookup(s) = %v, %v", v, ok)
	}
	if _, ok := obj.Lookup("missing"); ok {
		t.Error("Lookup(missing) found something")
	}
	if _, err := Number("01"); !errors.Is(err, ErrInvalidNumber) {
		t.Errorf("Number(01) error = %v", err)
	}
	if n, err := Number("1E3"); err != nil || !Equal(n, Int(1000)) {
		t.Errorf("Number(1E3) = %v, %v; want equal to 1000", n, err)
	}
}

func TestEqual(t *testing.T) {
	num := func(s string) Value {
		v, err := Number(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	equal := [][2]Value{
		{num("1.0"), num("1")},
		{num("-0"), num("0")},
		{num("1e21"), num("1000000000000000000000")},
		{Object(Member{"a", Int(1)}), Object(Member{"a", num("1.00")})},
	}
	for _, p := range equal {
		if !Equal(p[0], p[1]) {
			t.Errorf("Equal(%s, %s) = false", jsonString(t, p[0]), jsonString(t, p[1]))
		}
	}
	differ := [][2]Value{
		{num("1"), String("1")},
		{num("9007199254740993"), num("9007199254740992")},
		{Object(Member{"a", Int(1)}, Member{"b", Int(2)}), Object(Member{"b", Int(2)}, Member{"a", Int(1)})},
		{Array(Int(1)), Array(Int(1), Int(1))},
		{Object(), Array()},
	}
	for _, p := range differ {
		if Equal(p[0], p[1]) {
			t.Errorf("Equal(%s, %s) = true", jsonString(t, p[0]), jsonString(t, p[1]))
		}
	}
}
