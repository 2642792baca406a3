/*
 * The merchant dashboard's one script (docs/decisions.md, "Dashboard: server-rendered pages of the
 * gateway that call the API's own operations"): the home page's MRR chart, drawn with Chart.js from
 * the rows of the table beside it, so the chart and the table are the same points. Everything else
 * works without it.
 */
(function () {
  'use strict';
  var table = document.getElementById('mrr-table');
  var canvas = document.getElementById('mrr-chart');
  var figure = document.getElementById('mrr-figure');
  if (!table || !canvas || !figure || typeof Chart === 'undefined') return;
  var rows = Array.prototype.slice.call(table.querySelectorAll('tbody tr'));
  var months = rows.map(function (row) {
    return row.getAttribute('data-month');
  });
  var mrr = rows.map(function (row) {
    return Number(row.getAttribute('data-mrr'));
  });
  var currency = canvas.getAttribute('data-currency');
  var money = new Intl.NumberFormat('en', { style: 'currency', currency: currency, currencyDisplay: 'narrowSymbol' });
  figure.hidden = false;
  new Chart(canvas, {
    type: 'line',
    data: {
      labels: months,
      datasets: [
        {
          label: 'MRR (' + currency + ')',
          data: mrr,
          borderColor: '#1b5fd9',
          backgroundColor: 'rgba(27, 95, 217, 0.15)',
          fill: true,
          tension: 0,
        },
      ],
    },
    options: {
      animation: false,
      maintainAspectRatio: false,
      scales: {
        y: {
          beginAtZero: true,
          ticks: {
            callback: function (value) {
              return money.format(value);
            },
          },
        },
      },
      plugins: {
        tooltip: {
          callbacks: {
            label: function (item) {
              return money.format(item.parsed.y);
            },
          },
        },
      },
    },
  });
})();
