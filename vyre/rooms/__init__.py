"""Projects and rooms: which sessions each room reads (`membership`), deriving each room's
beliefs (`pipeline`, `derive`, `main_graph`), the user's corrections applied there
(`corrections`), and the room names every package shares (`names`)."""
