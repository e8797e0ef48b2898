"""Backend replies shaped into the compact JSON every door returns."""
