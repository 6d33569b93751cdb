package refagent

import "testing"

// TestSentiment checks the word counts behind a verdict: negation, its
// reach, and texts with no sentiment word or as many of each.
func TestSentiment(t *testing.T) {
	cases := []struct {
		text string
		want sentimentReport
	}{
		{"I really enjoyed using this new feature!", sentimentReport{"positive", 0.5, 0.67}},
		{"Terrible. Just awful, and it crashed twice.", sentimentReport{"negative", -0.75, 0.8}},
		{"I don't like it", sentimentReport{"negative", -0.5, 0.67}},
		{"not a problem", sentimentReport{"positive", 0.5, 0.67}},
		{"not at all a problem", sentimentReport{"negative", -0.5, 0.67}}, // past the negation's reach
		{"not that it matters, but it was good", sentimentReport{"positive", 0.5, 0.67}},
		{"good but slow", sentimentReport{"neutral", 0, 0.5}},
		{"The meeting is at noon.", sentimentReport{"neutral", 0, 0.5}},
		{"", sentimentReport{"neutral", 0, 0.5}},
		{"GREAT, GREAT, GREAT!!! Love it, but one bug.", sentimentReport{"positive", 0.5, 0.71}},
	}
	for _, tc := range cases {
		if got := sentiment(tc.text); got != tc.want {
			t.Errorf("sentiment(%q) = %+v, want %+v", tc.text, got, tc.want)
		}
	}
}
