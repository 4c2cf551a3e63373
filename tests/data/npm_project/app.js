'use strict';
const express = require('express');

function makeApp() {
  const app = express();
  app.use(express.json());
  app.get('/hello/:name', (req, res) => res.json({ hello: req.params.name }));
  app.post('/sum', (req, res) => {
    const nums = req.body.numbers;
    if (!Array.isArray(nums)) return res.status(400).json({ error: 'numbers must be an array' });
    res.json({ sum: nums.reduce((a, b) => a + b, 0) });
  });
  app.get('/slow', (req, res) => setTimeout(() => res.send('done'), 5));
  return app;
}

module.exports = { makeApp };
